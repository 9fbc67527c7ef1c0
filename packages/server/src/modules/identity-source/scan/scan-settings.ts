/** The scan sign-in's return address (registered with the provider). */
export const callbackUrlOf = (publicUrl: string, sourceId: string) =>
  `${publicUrl}/portal/scan/${sourceId}/callback`;
