/**
 * The translator for each ordered pair of different protocols, derived from the protocols' codecs:
 * the caller's codec outside, the upstream's inside (translator.ts). What each pair loses is in the
 * README, "Translation". Each pair's translator is built on first use and kept.
 */
import { PROTOCOLS, type Protocol } from '../protocols/types.js';
import { codecs } from './codecs.js';
import { createTranslator, type Translator } from './translator.js';

const translators = Object.fromEntries(PROTOCOLS.map((p) => [p, {}])) as Record<Protocol, Partial<Record<Protocol, Translator>>>;

export function translatorFor(caller: Protocol, upstream: Protocol): Translator | undefined {
  if (caller === upstream) return undefined;
  const made = translators[caller][upstream];
  if (made !== undefined) return made;
  const translator = createTranslator(codecs[caller], codecs[upstream]);
  translators[caller][upstream] = translator;
  return translator;
}
