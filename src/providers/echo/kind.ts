/** `echo`: built in, answers every protocol locally from the request alone (see provider.ts). */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import { defineKind } from '../kind.js';
import { createEchoProvider } from './provider.js';

export const echo = defineKind({
  type: 'echo',
  summary: 'Built in: answers locally, with no network, by echoing the request.',
  protocols: ['responses', 'chat', 'messages', 'gemini'],
  fields: {
    baseUrl: httpUrl().optional().describe('Unused by echo.'),
    apiKey: z.string().optional().describe('Unused by echo.'),
  },
  dialect: 'openai',
  baseUrl: () => undefined,
  describe: { where: () => 'built in', credential: undefined },
  create: (config) => createEchoProvider(config),
});
