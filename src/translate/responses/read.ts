/**
 * Narrowing helpers for Responses wire JSON, and the one place warnings are recorded.
 */
export { str, num, bool, list, objects } from '../../protocols/json.js';
export { warn } from '../common/warn.js';
