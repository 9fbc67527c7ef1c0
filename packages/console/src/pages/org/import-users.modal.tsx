import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { importLimits } from '@tessera/contract/constants';
import { Alert, Button, Flex, Modal, Spin, Typography, Upload } from 'antd';
import { useEffect, useReducer, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { currentLanguage } from '../../i18n/i18n.ts';
import { useDownload } from './download.ts';
import {
  type ImportState,
  importAccept,
  importBusy,
  importFileProblem,
  importReducer,
  initialImportState,
  pollImportTask,
} from './import-task.ts';
import type { ImportTask } from './org-types.ts';

type RowError = ImportTask['errors'][number];

const MIB = 1024 * 1024;
const ERRORS_PAGE_SIZE = 10;
const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Imports users from an .xlsx file (spec §5): template in the current language, upload, then
 * the task is polled until it ends; a failed import lists the reason of every refused row.
 */
export function ImportUsersModal({
  open,
  onClose,
  onImported,
}: {
  open: boolean;
  onClose(): void;
  /** Users were created: the list should reload. */
  onImported(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { uploadFile, callApi } = useConsole();
  const download = useDownload();
  const [state, dispatch] = useReducer(importReducer, initialImportState);
  const [downloading, setDownloading] = useState(false);
  // Polling goes on while the dialog is closed and stops when the screen goes (the task goes on on the server).
  const active = useRef(true);
  useEffect(
    () => () => {
      active.current = false;
    },
    [],
  );

  const start = async (file: File) => {
    dispatch({ type: 'upload', fileName: file.name });
    let taskId: string;
    try {
      ({ taskId } = await uploadFile('/api/v1/manage/user/batch-task/create', file));
    } catch (error) {
      dispatch({ type: 'refused', message: (error as Error).message });
      return;
    }
    dispatch({ type: 'uploaded', taskId });
    try {
      const task = await pollImportTask({
        taskId,
        fetchTask: (id) => callApi('/api/v1/manage/user/batch-task', { taskId: id }, { silent: true }),
        onProgress: (progress) => dispatch({ type: 'progress', task: progress }),
        wait,
        stopped: () => !active.current,
      });
      if (task?.status === 'success') onImported();
    } catch {
      if (active.current) dispatch({ type: 'refused', message: t('org.import.pollFailed') });
    }
  };

  const downloadTemplate = async () => {
    setDownloading(true);
    const language = currentLanguage();
    await download('/api/v1/manage/user/batch-task/template', { language }, t('org.import.templateName'));
    setDownloading(false);
  };

  const close = () => {
    if (!importBusy(state)) dispatch({ type: 'reset' });
    onClose();
  };

  return (
    <Modal
      open={open}
      title={t('org.import.title')}
      onCancel={close}
      width={640}
      footer={
        <Flex justify="flex-end" gap={8} wrap>
          {state.phase === 'success' || state.phase === 'failed' || state.phase === 'refused' ? (
            <Button onClick={() => dispatch({ type: 'reset' })}>{t('org.import.again')}</Button>
          ) : null}
          <Button type="primary" onClick={close}>
            {t('org.import.close')}
          </Button>
        </Flex>
      }
    >
      <Flex vertical gap={16}>
        <Typography.Paragraph style={{ marginBottom: 0 }}>{t('org.import.intro')}</Typography.Paragraph>
        <div>
          <Button icon={<DownloadOutlined />} loading={downloading} onClick={downloadTemplate}>
            {t('org.import.template')}
          </Button>
        </div>
        {state.phase === 'idle' ? (
          <Upload.Dragger
            accept={importAccept}
            showUploadList={false}
            maxCount={1}
            beforeUpload={(file) => {
              const problem = importFileProblem(file);
              if (problem) {
                void message.error(t(problem, { size: importLimits.fileBytes / MIB }));
              } else {
                void start(file);
              }
              return Upload.LIST_IGNORE;
            }}
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{t('org.import.drop')}</p>
            <p className="ant-upload-hint">
              {t('org.import.limits', { rows: importLimits.maxRows, size: importLimits.fileBytes / MIB })}
            </p>
          </Upload.Dragger>
        ) : (
          <ImportOutcome state={state} />
        )}
      </Flex>
    </Modal>
  );
}

/** Uploading, waiting in the queue (behind the company's earlier imports, or for a free slot), or importing. */
function Progress({ state }: { state: Extract<ImportState, { phase: 'uploading' | 'importing' }> }) {
  const { t } = useTranslation();
  const file = state.fileName;
  const position = state.phase === 'importing' ? (state.task?.queuePosition ?? null) : null;
  let text: string;
  if (state.phase === 'uploading') text = t('org.import.uploading', { file });
  else if (position === null) text = t('org.import.importing', { file });
  else if (position > 1) text = t('org.import.waitingCompany', { file, count: position - 1 });
  else text = t('org.import.waitingSlot', { file });
  return <span>{text}</span>;
}

/** What the import is doing, or how it ended. */
export function ImportOutcome({ state }: { state: Exclude<ImportState, { phase: 'idle' }> }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const file = state.fileName;
  switch (state.phase) {
    case 'uploading':
    case 'importing':
      return (
        <Flex vertical align="center" gap={8} style={{ padding: 24 }} role="status">
          <Spin />
          <Progress state={state} />
          {state.phase === 'importing' ? (
            <Typography.Text type="secondary">{t('org.import.taskId', { id: state.taskId })}</Typography.Text>
          ) : null}
        </Flex>
      );
    case 'success':
      return (
        <Alert type="success" showIcon title={t('org.import.success', { count: state.task.created, file })} />
      );
    case 'refused':
      return (
        <Alert type="error" showIcon title={t('org.import.refused', { file })} description={state.message} />
      );
    case 'failed': {
      const { errors } = state.task;
      // The file as a whole could not be read or imported (row 0): its reasons, without a table of rows.
      if (errors.every((error) => error.row === 0))
        return (
          <Alert
            type="error"
            showIcon
            title={t('org.import.failedFile', { file })}
            description={errors.map((error) => <div key={error.message}>{error.message}</div>)}
          />
        );
      const columns: DataColumn<RowError>[] = [
        { key: 'row', title: t('org.import.column.row'), width: 72, render: (row) => row.row || '—' },
        { key: 'field', title: t('org.import.column.field'), width: 120, render: (row) => row.field ?? '—' },
        { key: 'reason', title: t('org.import.column.reason'), render: (row) => row.message },
      ];
      return (
        <Flex vertical gap={12}>
          <Alert type="error" showIcon title={t('org.import.failed', { count: errors.length, file })} />
          <DataTable<RowError>
            label={t('org.import.title')}
            testId="import-errors"
            rowKey={(row) => `${row.row}:${row.field ?? ''}:${row.message}`}
            columns={columns}
            rows={errors.slice((page - 1) * ERRORS_PAGE_SIZE, page * ERRORS_PAGE_SIZE)}
            paging={
              errors.length > ERRORS_PAGE_SIZE
                ? {
                    page,
                    pageSize: ERRORS_PAGE_SIZE,
                    pageSizes: [ERRORS_PAGE_SIZE],
                    total: errors.length,
                    onChange: (next) => setPage(next),
                  }
                : undefined
            }
          />
        </Flex>
      );
    }
  }
}
