/** Rules of antd form fields that several forms share. */

/** A text that must not be empty or blank. */
export const requiredText = (message: string) => ({ required: true, whitespace: true, message });

/** At most `max` characters once trimmed (the server trims before it counts). */
export const maxTrimmed = (max: number, message: string) => ({
  max,
  transform: (value?: string) => value?.trim(),
  message,
});
