/** Narrowing helpers for Gemini wire JSON read from `unknown`, and the one place warnings are recorded. */
export { isObject, str, num, bool, list, objects, parseObject, type Json } from '../../json.js';
export { warn } from '../../../translate/common/warn.js';
