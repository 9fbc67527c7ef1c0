import { describe, expect, it } from 'vitest';
import { createServer } from './server.ts';

describe('the HTTP server', () => {
  it('still validates and serialises with JSON schemas, whose compilers it loads on first use', async () => {
    const { app } = await createServer({ config: { publicUrl: 'http://localhost', logLevel: 'silent' } });
    const handled: unknown[] = [];
    app.post(
      '/echo',
      {
        schema: {
          body: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', minLength: 2 } },
          },
          response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      },
      async (request) => {
        handled.push(request.body);
        return { ...(request.body as object), secret: 'not in the schema' };
      },
    );
    try {
      const good = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'Ada' } });
      expect(good.statusCode).toBe(200);
      expect(good.json()).toEqual({ name: 'Ada' });
      const bad = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'A' } });
      // Refused before the handler (the envelope's error handling decides the status).
      expect(bad.statusCode).toBeGreaterThanOrEqual(400);
      expect(handled).toEqual([{ name: 'Ada' }]);
    } finally {
      await app.close();
    }
  });
});
