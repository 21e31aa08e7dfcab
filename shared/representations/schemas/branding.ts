import * as z from '../../zod.ts';
import { timestamp } from './common.ts';

/** The merchant's branding of the key's environment: what its customers see on messages and the card-update page. */
export const brandingSchema = z
  .strictObject({
    name: z.string(),
    logo_url: z.string().nullable(),
    accent_color: z.string().regex(/^#[0-9a-f]{6}$/),
    support_email: z.string().nullable(),
    updated_at: timestamp.nullable().meta({ description: 'When it was last changed; null while it is the default (the merchant name, no logo)' }),
  })
  .meta({ id: 'Branding' });

export type BrandingResource = z.output<typeof brandingSchema>;
