/**
 * The proxy of bench/storm.bench.ts: Debian's nginx (scripts/with-nginx.sh gives the binary and a
 * dir), its own process, round robin over the servers, keep-alive upstream, one worker.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './server.ts';

const configuration = (dir: string, ports: number[], port: number) => `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream tessera {
${ports.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    # The console API names its headers access_token and company_id.
    underscores_in_headers on;
    location / {
      proxy_pass http://tessera;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto http;
      proxy_buffer_size 16k;
      proxy_buffers 8 16k;
    }
  }
}
`;

/** Starts nginx on 127.0.0.1:`port` in front of the servers on `ports`; waits until it answers. */
export async function startNginx(ports: number[], port: number): Promise<{ stop(): Promise<void> }> {
  const binary = process.env.TESSERA_TEST_NGINX;
  const dir = process.env.TESSERA_TEST_NGINX_DIR;
  if (!binary || !dir) throw new Error('nginx is needed: run this under scripts/with-nginx.sh');
  writeFileSync(join(dir, 'nginx.conf'), configuration(dir, ports, port));
  const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (let i = 0; ; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/oidc/.well-known/openid-configuration`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (i === 100) throw new Error(`nginx did not answer on ${port} (${dir}/error.log)`);
    await sleep(50);
  }
  return {
    async stop() {
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
