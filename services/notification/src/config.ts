import { z } from 'zod';
import { commonSettings, envBoolean, stackService } from '@fxdesk/core';
/** Every setting of the notification service; `.env.example` documents each one. */
export const NotificationConfigSchema = z.object({
  ...commonSettings(stackService('notification').defaultPort),
  NOTIFICATION_API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }).optional(),
  NOTIFICATIONS_ENABLED: envBoolean(true),
});

export type NotificationConfig = z.output<typeof NotificationConfigSchema>;
