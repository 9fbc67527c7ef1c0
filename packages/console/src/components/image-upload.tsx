import { UploadOutlined } from '@ant-design/icons';
import { Button, type ButtonProps, Upload } from 'antd';
import type { ParseKeys } from 'i18next';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFeedback } from '../app/feedback.ts';

/**
 * A button that uploads one image: the file is checked first (`problemOf` names what is wrong as a
 * phrase key, shown and nothing sent; the server checks again), then `send` uploads it and takes
 * in the answer, and `uploaded` (a phrase key) is said. A failed upload has been shown by the
 * HTTP client.
 */
export function ImageUpload({
  accept,
  problemOf,
  send,
  uploaded,
  button,
  children,
}: {
  accept: string;
  problemOf(file: { type: string; size: number }): ParseKeys | undefined;
  send(file: Blob): Promise<unknown>;
  uploaded: ParseKeys;
  button?: Omit<ButtonProps, 'icon' | 'loading'>;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const [uploading, setUploading] = useState(false);
  return (
    <Upload
      accept={accept}
      showUploadList={false}
      maxCount={1}
      beforeUpload={(file) => {
        const problem = problemOf(file);
        if (!problem) return true;
        void message.error(t(problem));
        return Upload.LIST_IGNORE;
      }}
      customRequest={({ file, onSuccess, onError }) => {
        setUploading(true);
        send(file as Blob)
          .then((answer) => {
            void message.success(t(uploaded));
            onSuccess?.(answer);
          })
          .catch((error: Error) => onError?.(error))
          .finally(() => setUploading(false));
      }}
    >
      <Button {...button} icon={<UploadOutlined />} loading={uploading}>
        {children}
      </Button>
    </Upload>
  );
}
