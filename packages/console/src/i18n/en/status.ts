export const status = {
  notFoundTitle: 'Page not found',
  notFoundSubtitle: 'The page you are looking for does not exist.',
  okTitle: 'Done',
  okSubtitle: 'The operation completed successfully.',
};
