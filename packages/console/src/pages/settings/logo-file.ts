import { companyIconTypes, uploadLimits } from '@tessera/contract/constants';

/** Why a chosen logo cannot be sent, checked before the upload (the server checks again). */
export type LogoProblem = 'settings.logoWrongType' | 'settings.logoTooLarge';

const allowedTypes: readonly string[] = companyIconTypes;

export function logoProblem(file: { type: string; size: number }): LogoProblem | undefined {
  if (!allowedTypes.includes(file.type)) return 'settings.logoWrongType';
  if (file.size > uploadLimits.iconBytes) return 'settings.logoTooLarge';
  return undefined;
}

/** What the file picker offers. */
export const logoAccept = ['.png', '.jpg', '.jpeg', '.svg', '.webp', ...allowedTypes].join(',');
