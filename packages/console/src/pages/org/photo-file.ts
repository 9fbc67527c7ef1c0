import { photoLimits, photoTypes } from '@tessera/contract/constants';

/** Why a chosen photo cannot be sent, checked before the upload (the server checks again). */
export type PhotoProblem = 'org.detail.photoWrongType' | 'org.detail.photoTooLarge';

export function photoProblem(file: { type: string; size: number }): PhotoProblem | undefined {
  if (!(photoTypes as readonly string[]).includes(file.type)) return 'org.detail.photoWrongType';
  if (file.size > photoLimits.bytes) return 'org.detail.photoTooLarge';
  return undefined;
}

export const photoAccept = ['.png', '.jpg', '.jpeg', '.gif', '.webp', ...photoTypes].join(',');
