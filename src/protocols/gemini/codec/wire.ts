/**
 * The Gemini `generateContent` wire shapes this codec writes, kept to what it emits. The official
 * SDK's types (`@google/genai`) are the reference: `sdk-types.test-d.ts` checks these against them.
 * The request body is the REST one (`contents`, `systemInstruction`, `tools`, `toolConfig`,
 * `generationConfig`), not the SDK's call parameters (`model`, `contents`, `config`).
 */

export interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType: string; fileUri: string };
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

export type FinishReason =
  | 'STOP'
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'LANGUAGE'
  | 'OTHER'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'IMAGE_SAFETY'
  | 'UNEXPECTED_TOOL_CALL'
  | 'TOO_MANY_TOOL_CALLS'
  | 'IMAGE_PROHIBITED_CONTENT'
  | 'NO_IMAGE'
  | 'IMAGE_RECITATION'
  | 'IMAGE_OTHER'
  | 'CONTINUATION'
  | 'FINISH_REASON_UNSPECIFIED';

export interface UsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

export interface Candidate {
  content: Content;
  finishReason?: FinishReason;
  index: number;
}

/** A whole answer, and each chunk of a streamed one (`:streamGenerateContent?alt=sse`, one per `data:`). */
export interface GenerateContentResponse {
  candidates: Candidate[];
  usageMetadata?: UsageMetadata;
  modelVersion: string;
  responseId: string;
}

export type FunctionCallingMode = 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED';

export type ThinkingLevel = 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';

export interface GenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: unknown;
  thinkingConfig?: { includeThoughts?: boolean; thinkingBudget?: number; thinkingLevel?: ThinkingLevel };
}

export interface FunctionDeclaration {
  name: string;
  description?: string;
  parametersJsonSchema?: unknown;
}

export interface RequestBody {
  contents: Content[];
  systemInstruction?: { parts: Part[] };
  tools?: { functionDeclarations: FunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: FunctionCallingMode; allowedFunctionNames?: string[] } };
  generationConfig?: GenerationConfig;
}

/** One SSE event of a Gemini stream: data only, no event name. */
export const sse = (chunk: GenerateContentResponse | { error: { code: number; message: string; status: string } }): string =>
  `data: ${JSON.stringify(chunk)}\n\n`;
