import type { ApiRequest, DownloadPath } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';

/** Saves a file the page has in hand under this name (the browser's download). */
export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Posts a download call through the console's HTTP client and saves the file it answers under
 * the name the server gives (or `fallbackName`). A refusal is shown like any other call's;
 * resolves to whether a file was saved.
 */
export function useDownload() {
  const { downloadFile } = useConsole();
  return async <P extends DownloadPath>(path: P, body: ApiRequest<P>, fallbackName: string) => {
    try {
      const file = await (downloadFile as (path: P, body: ApiRequest<P>) => ReturnType<typeof downloadFile>)(
        path,
        body,
      );
      saveBlob(file.blob, file.filename ?? fallbackName);
      return true;
    } catch {
      // Already shown by the HTTP client.
      return false;
    }
  };
}
