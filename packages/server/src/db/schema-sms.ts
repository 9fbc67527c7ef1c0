import type { Timestamp } from './schema-columns.ts';

/** The installation's SMS provider: one row, or none (modules/sms). */
export interface SmsProviderTable {
  id: boolean;
  provider: 'aliyun' | 'tencent';
  access_key_id: string;
  access_key_secret_sealed: string;
  region: string;
  app_id: string;
  sign_name: string;
  template_id: string;
  template_minutes: boolean;
  base_url: string | null;
  updated_at: Timestamp;
}

/** A company's own sign name and code template under the platform's provider. */
export interface CompanySmsSettingsTable {
  company_id: string;
  sign_name: string | null;
  template_id: string | null;
  updated_at: Timestamp;
}

export interface SmsTables {
  sms_provider: SmsProviderTable;
  company_sms_settings: CompanySmsSettingsTable;
}
