/**
 * Narrowing helpers for Responses wire JSON, and the one place warnings are recorded.
 */
export { str, num, bool, list, objects } from '../../json.js';
export { warn } from '../../../translate/common/warn.js';
