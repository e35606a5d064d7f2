/**
 * Narrowing helpers for the Chat wire shapes, and the warning helper every Chat mapper shares.
 */
export { isObject, type Json, str, num, bool, objects, parseJson, list as arr } from '../../protocols/json.js';
export { warn } from '../common/warn.js';

import { isObject, type Json } from '../../protocols/json.js';

export const obj = (v: unknown): Json => (isObject(v) ? v : {});
