/**
 * Narrowing helpers for the Chat wire shapes, and the warning helper every Chat mapper shares.
 */
export { isObject, type Json, str, num, bool, objects, parseJson, list as arr } from '../../json.js';
export { warn } from '../../../translate/common/warn.js';

import { isObject, type Json } from '../../json.js';

export const obj = (v: unknown): Json => (isObject(v) ? v : {});
