/**
 * Endpoint paths with parameters: `/v1beta/models/{model}:generateContent` matches
 * `/v1beta/models/gemini-2.5-pro:generateContent` with `model` = `gemini-2.5-pro`. A parameter
 * takes the whole segment between its literal prefix and suffix, percent-decoded, and never
 * a `/`, so one segment of a path can never fill two of a template.
 */
import type { PathParams } from './types.js';

interface Segment {
  readonly prefix: string;
  /** Absent: the segment is the literal `prefix`. */
  readonly param?: string;
  readonly suffix: string;
}

export interface PathTemplate {
  readonly text: string;
  readonly segments: readonly Segment[];
}

const PARAM = /^([^{}]*)\{([A-Za-z][A-Za-z0-9_]*)\}([^{}]*)$/;

export function parseTemplate(text: string): PathTemplate {
  if (!text.startsWith('/')) throw new Error(`path template must start with /: ${text}`);
  const segments = text
    .slice(1)
    .split('/')
    .map((part): Segment => {
      if (!part.includes('{') && !part.includes('}')) return { prefix: part, suffix: '' };
      const m = PARAM.exec(part);
      if (!m) throw new Error(`path template segment must hold one {name}: ${part} in ${text}`);
      return { prefix: m[1]!, param: m[2]!, suffix: m[3]! };
    });
  return { text, segments };
}

export const isLiteral = (template: PathTemplate): boolean => template.segments.every((s) => s.param === undefined);

/** The parameters when `path` matches `template`, else undefined. A parameter's value may not be empty. */
export function matchTemplate(template: PathTemplate, path: string): PathParams | undefined {
  const parts = path.slice(1).split('/');
  if (!path.startsWith('/') || parts.length !== template.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const seg = template.segments[i]!;
    if (seg.param === undefined) {
      if (part !== seg.prefix) return undefined;
      continue;
    }
    if (part.length <= seg.prefix.length + seg.suffix.length || !part.startsWith(seg.prefix) || !part.endsWith(seg.suffix)) return undefined;
    const raw = part.slice(seg.prefix.length, part.length - seg.suffix.length);
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    params[seg.param] = value;
  }
  return params;
}
