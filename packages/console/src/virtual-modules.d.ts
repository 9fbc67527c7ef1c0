declare module 'virtual:china-provinces' {
  const outlines: { type: 'FeatureCollection'; features: unknown[] };
  export default outlines;
}
