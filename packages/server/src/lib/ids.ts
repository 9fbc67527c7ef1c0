import { randomUUID } from 'node:crypto';

/** Every row id of the platform is made here. */
export const newId = (): string => randomUUID();
