import {
  type CasAttributeSource,
  type CasPatternKind,
  casPatternProblem,
  casServiceMatches,
} from '@tessera/contract/constants';
import type { FormRule } from 'antd';
import type { TFunction } from 'i18next';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';

/** An application's CAS settings as the CAS tab edits them. */
export type CasSettings = ApiResponse<'/api/v1/manage/app/cas/detail'>;

export interface CasValues {
  servicePatterns: { kind: CasPatternKind; value: string }[];
  attributes: CasAttributeSource[];
  ticketTtl: number;
  allowProxy: boolean;
  sloEnabled: boolean;
  sloUrl: string;
}

/** The fields a refusal of the update call can name. */
export const casFormFields = [
  'servicePatterns',
  'attributes',
  'ticketTtl',
  'allowProxy',
  'sloEnabled',
  'sloUrl',
];

export const casValuesOf = (settings: CasSettings): CasValues => ({
  servicePatterns: settings.servicePatterns.length
    ? settings.servicePatterns
    : [{ kind: 'prefix', value: '' }],
  attributes: settings.attributes,
  ticketTtl: settings.ticketTtl,
  allowProxy: settings.allowProxy,
  sloEnabled: settings.sloEnabled,
  sloUrl: settings.sloUrl ?? '',
});

export const casUpdateOf = (
  appId: string,
  values: CasValues,
): ApiRequest<'/api/v1/manage/app/cas/update'> => ({
  appId,
  servicePatterns: values.servicePatterns.map((pattern) => ({
    kind: pattern.kind,
    value: pattern.value.trim(),
  })),
  attributes: values.attributes,
  ticketTtl: values.ticketTtl,
  allowProxy: values.allowProxy,
  sloEnabled: values.sloEnabled,
  sloUrl: values.sloUrl.trim() || null,
});

/** A pattern checked as the server checks it, with the kind chosen beside it. */
export const casPatternRule =
  (t: TFunction, kindOf: () => CasPatternKind): FormRule =>
  () => ({
    validator: async (_rule, value: string | undefined) => {
      const trimmed = (value ?? '').trim();
      if (!trimmed) throw new Error(t('apps.cas.patternRequired'));
      const problem = casPatternProblem({ kind: kindOf(), value: trimmed });
      if (problem) throw new Error(t(`apps.cas.problem.${problem}`));
    },
  });

/** The single-logout address, when given, must be one the patterns allow. */
export const casSloUrlRule =
  (t: TFunction): FormRule =>
  ({ getFieldValue }) => ({
    validator: async (_rule, value: string | undefined) => {
      const url = (value ?? '').trim();
      if (!url) return;
      const patterns = (getFieldValue('servicePatterns') as CasValues['servicePatterns']) ?? [];
      if (
        !patterns.some((pattern) =>
          casServiceMatches({ kind: pattern.kind, value: pattern.value.trim() }, url),
        )
      )
        throw new Error(t('apps.cas.sloUrlInvalid'));
    },
  });
