import { HttpError } from 'react-admin';
import { toHttpError } from '../core/http.js';
import { apiUrl, storage } from '../core/org.js';

export interface UploadAnswer {
  submission_id: number;
  size_bytes: number;
  message: string;
}

/**
 * Sends a file's bytes as the body of POST /submissions/upload (the streamed route: the file is
 * never read whole into memory here or on the server), reporting the share sent so far (0 to 1).
 * XMLHttpRequest, because fetch does not report upload progress in browsers.
 */
export function uploadFile(
  file: File,
  query: Record<string, string | number | boolean | null | undefined>,
  onProgress: (sent: number) => void,
): Promise<UploadAnswer> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== '') params.set(k, String(v));
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', apiUrl(`/submissions/upload?${params}`));
    xhr.setRequestHeader('accept', 'application/json');
    if (storage.token) xhr.setRequestHeader('authorization', `Bearer ${storage.token}`);
    // The route takes the file's own type from the header; an unknown one is left to the file name.
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / Math.max(e.total, 1));
    xhr.onload = () => {
      let payload: unknown = null;
      try {
        payload = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        /* not JSON: the status says what happened */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(payload as UploadAnswer);
      else reject(toHttpError(xhr.status, payload));
    };
    xhr.onerror = () => reject(new HttpError('The server cannot be reached. Check your connection and retry.', 0));
    xhr.send(file);
  });
}
