import { Form, Grid } from 'antd';
import { useCallback, useEffect, useRef } from 'react';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useDetailSave } from './use-detail-save.ts';

/** The detail calls of an application's settings tabs: they take the application's id alone. */
type DetailPath = '/api/v1/manage/app/cas/detail' | '/api/v1/manage/app/provisioning/detail';

/**
 * A settings tab of the application detail (CAS, Provisioning): loads the tab's settings with
 * `path` when it opens, and holds the form that edits them: its values follow the loaded
 * settings (`valuesOf`), it is laid out narrow on small screens, and `save` sends the values and
 * answers the settings as they now are ("Saved", or the refused fields among `fields` marked).
 */
export function useAppSettingsForm<P extends DetailPath, Values>(options: {
  path: P;
  appId: string;
  fields: readonly string[];
  valuesOf(settings: ApiResponse<P>): Values;
  save(values: Values, settings: ApiResponse<P>): Promise<ApiResponse<P>>;
}) {
  const { path, appId, fields } = options;
  const { callApi } = useConsole();
  const load = useCallback(
    () => callApi(path, { appId } as ApiRequest<P>) as Promise<ApiResponse<P>>,
    [callApi, path, appId],
  );
  const { data, setData, loading } = useLoad(load);
  // The latest callbacks, so that a caller's inline functions do not reset the form at each render.
  const latest = useRef(options);
  latest.current = options;
  const [form] = Form.useForm<Values>();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  useEffect(() => {
    if (data !== undefined) form.setFieldsValue(latest.current.valuesOf(data) as never);
  }, [form, data]);
  const { saving, submit } = useDetailSave(form, fields, async (values) => {
    if (data !== undefined) setData(await latest.current.save(values, data));
  });
  return { settings: data, setSettings: setData, loading, form, narrow, saving, submit };
}

export type AppSettingsForm<P extends DetailPath, Values> = ReturnType<typeof useAppSettingsForm<P, Values>>;
