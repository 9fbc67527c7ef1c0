/** A snake_case value as its phrase key (phrase keys are camelCase identifiers). */
export type Camel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
export const camel = <S extends string>(value: S): Camel<S> =>
  value.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase()) as Camel<S>;
