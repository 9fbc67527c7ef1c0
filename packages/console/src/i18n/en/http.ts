export const http = {
  error: 'Error',
  networkError: 'Error: Network Error',
  timeout: 'Error: the server did not answer in time',
  badResponse: 'Error: the server answered with status {{status}}',
};
