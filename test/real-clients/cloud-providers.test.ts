/**
 * The REAL Claude Code and Codex CLIs complete a tool loop on Claude served by Amazon Bedrock and by
 * Google Vertex AI, both fakes on loopback that behave like the strict real services: the fake
 * Bedrock checks each SigV4 signature with an implementation of its own, answers streams in AWS
 * event-stream frames and refuses body fields it does not know (fake-bedrock.ts); the fake Vertex
 * takes only tokens its fake Google token endpoint issued for the service account's signed JWT,
 * reached through the key file's token_uri (fake-vertex.ts, fake-google-token.ts). Behind both, a
 * model that decides from the request (claude-tool-loop.ts): a call of the client's shell tool,
 * then, once the result is back and paired with its call, text saying what the command printed.
 *
 * Claude Code speaks Messages: it reaches both clouds natively (the body rewrapped in the cloud's
 * envelope). Codex speaks Responses: translated to Messages, then rewrapped.
 *
 * Claude Code turns thinking on and sends a turn's thinking back only when the answer's `model` is
 * the name it asked for; a Claude with thinking on refuses a tool result whose call came back
 * without its thinking. So Claude Code's models are named here as the clouds' answers name them
 * (Anthropic's ids), and one case asks under another name.
 *
 * Opt-in, like real-clients.test.ts: MODEL_GATEWAY_REAL_CLIENTS_DIR names the folder holding
 * node_modules/.bin/claude and node_modules/.bin/codex; without it the file is skipped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import type { FakeGoogleToken } from '../helpers/fake-google-token.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import type { TestGateway } from '../helpers/start-gateway.js';
import { CLIENTS_DIR, CLIENT_TIMEOUT_MS, claudeCodeEnv, clientBin, clientEnv, codexProviderToml, freshDirs, TEST_TIMEOUT_MS } from '../helpers/real-clients.js';

const KEY = 'mgw-cloud-clients-key-0123456789abcdef';

const BEDROCK_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const VERTEX_MODEL = 'claude-haiku-4-5@20251001';
const VERTEX_REGION = 'us-east5';

type Json = Record<string, unknown>;
type Block = Json & { type: string };
interface Turn {
  role: string;
  content: string | Block[];
}

const describeReal = describe.skipIf(!CLIENTS_DIR);

describeReal('real clients on Claude in the cloud: Bedrock and Vertex AI (fakes on loopback)', () => {
  const claudeBin = clientBin('claude');
  const codexBin = clientBin('codex');
  let scratch: string;
  let gw: TestGateway;
  let bedrock: FakeUpstream;
  let vertex: FakeUpstream;
  let tokens: FakeGoogleToken;
  // The helpers are imported in beforeAll, so that the skipped file costs the normal run nothing.
  let helpers: {
    fakeBedrock: typeof import('../helpers/fake-bedrock.js')['fakeBedrock'];
    fakeVertex: typeof import('../helpers/fake-vertex.js')['fakeVertex'];
    shellToolModel: typeof import('../helpers/claude-tool-loop.js')['shellToolModel'];
    runClient: typeof import('../helpers/run-client.js')['runClient'];
    credentials: typeof import('../helpers/fake-bedrock.js')['AWS_SESSION_CREDENTIALS'];
    project: string;
  };
  const freshDir = freshDirs(() => scratch);

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-cloud-'));
    const [bedrockFake, vertexFake, googleToken, model, run, upstreams, gateway] = await Promise.all([
      import('../helpers/fake-bedrock.js'),
      import('../helpers/fake-vertex.js'),
      import('../helpers/fake-google-token.js'),
      import('../helpers/claude-tool-loop.js'),
      import('../helpers/run-client.js'),
      import('../helpers/fake-upstream.js'),
      import('../helpers/start-gateway.js'),
    ]);
    helpers = {
      fakeBedrock: bedrockFake.fakeBedrock,
      fakeVertex: vertexFake.fakeVertex,
      shellToolModel: model.shellToolModel,
      runClient: run.runClient,
      credentials: bedrockFake.AWS_SESSION_CREDENTIALS,
      project: googleToken.TEST_PROJECT,
    };
    [bedrock, vertex, tokens] = await Promise.all([upstreams.startFakeUpstream(), upstreams.startFakeUpstream(), googleToken.startFakeGoogleToken()]);
    // The gateway's AWS credential chain reads this process's environment: session credentials, and
    // nothing of the machine's own (no shared files, no instance metadata).
    const { accessKeyId, secretAccessKey, sessionToken } = helpers.credentials;
    const aws: Record<string, string | undefined> = {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_SESSION_TOKEN: sessionToken,
      AWS_PROFILE: undefined,
      AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-aws-credentials'),
      AWS_CONFIG_FILE: join(scratch, 'no-aws-config'),
      AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
      AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    for (const [name, value] of Object.entries(aws)) vi.stubEnv(name, value);
    gw = await gateway.startGateway(
      {
        providers: {
          bedrock: { type: 'bedrock', region: bedrockFake.BEDROCK_REGION, baseUrl: bedrock.url, retries: 0 },
          vertex: { type: 'vertex', region: VERTEX_REGION, credentialsFile: tokens.credentialsFile, baseUrl: vertex.url, retries: 0 },
        },
        models: {
          // The names the clouds' answers give these models.
          'claude-sonnet-4-5-20250929': { provider: 'bedrock', upstreamModel: BEDROCK_MODEL },
          'claude-haiku-4-5-20251001': { provider: 'vertex', upstreamModel: VERTEX_MODEL },
          // Names of the operator's own.
          'claude-sonnet-4-5-bedrock': { provider: 'bedrock', upstreamModel: BEDROCK_MODEL },
          'claude-haiku-4-5-vertex': { provider: 'vertex', upstreamModel: VERTEX_MODEL },
        },
        keyGroups: { dev: { keys: [KEY], models: ['*'] } },
      } as WrittenConfig,
      { verbose: true },
    );
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await gw?.close();
    await Promise.all([bedrock?.close(), vertex?.close(), tokens?.close()]);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** Claude Code -p on `model`, allowed to run echo only; its JSON result. */
  async function claudeCode(model: string, prompt: string) {
    const run = await helpers.runClient(claudeBin, ['-p', prompt, '--output-format', 'json', '--model', model, '--allowedTools', 'Bash(echo:*)'], {
      cwd: freshDir('claude-project'),
      env: claudeCodeEnv(freshDir('claude-home'), gw.url, KEY),
      timeoutMs: CLIENT_TIMEOUT_MS,
    });
    expect(run.code, `claude exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\nlog: ${gw.lines().join('\n')}`).toBe(0);
    return JSON.parse(run.stdout) as { subtype: string; is_error: boolean; result: string; num_turns: number };
  }

  /** `codex exec` on `model` through the gateway's Responses endpoint; its final message. */
  async function codex(model: string, prompt: string): Promise<string> {
    const codexHome = freshDir('codex-home');
    writeFileSync(join(codexHome, 'config.toml'), codexProviderToml(model, gw.url));
    const run = await helpers.runClient(codexBin, ['exec', '--skip-git-repo-check', prompt], {
      cwd: freshDir('codex-project'),
      env: { ...clientEnv(freshDir('codex-user-home')), CODEX_HOME: codexHome, MODEL_GATEWAY_API_KEY: KEY },
      timeoutMs: CLIENT_TIMEOUT_MS,
    });
    expect(run.code, `codex exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\nlog: ${gw.lines().join('\n')}`).toBe(0);
    return run.stdout;
  }

  interface Cloud {
    readonly name: 'bedrock' | 'vertex';
    /** The model's name as the cloud's answer gives it, and a name of the operator's own. */
    readonly model: string;
    readonly alias: string;
    readonly upstream: () => FakeUpstream;
    /** Installs the model on the fake, forgetting what it received. */
    readonly serve: (command: string) => void;
    /** What every model call must look like when it reaches the cloud: the path, the credential, the envelope. */
    readonly expectEnvelope: (got: Received) => void;
  }

  const CLOUDS: readonly Cloud[] = [
    {
      name: 'bedrock',
      model: 'claude-sonnet-4-5-20250929',
      alias: 'claude-sonnet-4-5-bedrock',
      upstream: () => bedrock,
      serve: (command) => {
        bedrock.reset();
        bedrock.always(helpers.fakeBedrock({ credentials: [helpers.credentials], model: helpers.shellToolModel(command) }));
      },
      expectEnvelope: (got) => {
        expect(got.url).toBe(`/model/${encodeURIComponent(BEDROCK_MODEL)}/invoke-with-response-stream`);
        expect(got.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${helpers.credentials.accessKeyId}/\\d{8}/us-west-2/bedrock/aws4_request, `));
        expect(got.headers['x-amz-security-token']).toBe(helpers.credentials.sessionToken);
        const body = got.json as Json;
        // The model is in the path and streaming is the path's: neither is in the body.
        expect(body).not.toHaveProperty('model');
        expect(body).not.toHaveProperty('stream');
        expect(body.anthropic_version).toBe('bedrock-2023-05-31');
      },
    },
    {
      name: 'vertex',
      model: 'claude-haiku-4-5-20251001',
      alias: 'claude-haiku-4-5-vertex',
      upstream: () => vertex,
      serve: (command) => {
        vertex.reset();
        vertex.always(helpers.fakeVertex(tokens, { project: helpers.project, region: VERTEX_REGION, model: helpers.shellToolModel(command) }));
      },
      expectEnvelope: (got) => {
        expect(got.url).toBe(`/v1/projects/${helpers.project}/locations/${VERTEX_REGION}/publishers/anthropic/models/${VERTEX_MODEL}:streamRawPredict`);
        expect(tokens.check(String(got.headers.authorization).replace(/^Bearer /, ''))).toBe('valid');
        const body = got.json as Json;
        expect(body).not.toHaveProperty('model');
        expect(body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
      },
    },
  ];

  /** Nothing of the caller's own credential or of Anthropic's headers reached the cloud. */
  function expectNoCallerHeaders(got: Received) {
    expect(got.headers['x-api-key']).toBeUndefined();
    expect(got.headers['anthropic-version']).toBeUndefined();
    expect(JSON.stringify(got.headers)).not.toContain(KEY);
  }

  /** The model calls of one loop: the call, then the result paired with it. Returns the tool call and its result. */
  function expectLoop(cloud: Cloud, tool: string): { call: Block; result: Block; bodies: Json[] } {
    const calls = cloud.upstream().received;
    expect(calls.map((r) => r.url)).toHaveLength(2);
    for (const got of calls) {
      cloud.expectEnvelope(got);
      expectNoCallerHeaders(got);
    }
    const bodies = calls.map((r) => r.json as Json);
    expect((bodies[0]!.tools as { name: string }[]).map((t) => t.name)).toContain(tool);
    const turns = bodies[1]!.messages as Turn[];
    const call = (turns.at(-2)!.content as Block[]).find((b) => b.type === 'tool_use')!;
    expect(turns.at(-2)!.role).toBe('assistant');
    expect(call).toMatchObject({ name: tool, id: 'toolu_fake_0' });
    const result = (turns.at(-1)!.content as Block[]).find((b) => b.type === 'tool_result')!;
    expect(turns.at(-1)!.role).toBe('user');
    expect(result.tool_use_id).toBe(call.id);
    return { call, result, bodies };
  }

  const textOf = (content: unknown): string =>
    typeof content === 'string' ? content : (content as Block[]).map((b) => (b.type === 'text' ? String(b.text) : '')).join('');

  /** The gateway's lines for the loop's POSTs, on `model`, natively or translated. */
  function expectLines(before: number, cloud: Cloud, model: string, path: string, translated: boolean) {
    const posts = gw.lines().slice(before).filter((l) => / POST /.test(l));
    expect(posts, posts.join('\n')).toHaveLength(2);
    const upstreamModel = cloud.name === 'bedrock' ? BEDROCK_MODEL : VERTEX_MODEL;
    for (const line of posts) {
      expect(line).toContain(` 200 POST ${path} ${model} → ${cloud.name}/${upstreamModel} `);
      if (translated) expect(line).toContain(' [responses→messages] ');
      else expect(line).not.toMatch(/\[\w+→\w+\]/);
    }
  }

  /** Claude Code's loop on `model`: Bash runs, its result comes back paired with the call, after the call's thinking. */
  async function claudeCodeLoop(cloud: Cloud, model: string) {
    const printed = `hello from claude code on ${cloud.name}`;
    cloud.serve(`echo ${printed}`);
    const before = gw.lines().length;
    const result = await claudeCode(model, 'Print the line with echo.');
    expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 2 });
    // The model's last words quote the tool's output: the command ran and its result came back.
    expect(result.result).toBe(`The command printed: ${printed}`);

    const { call, result: toolResult, bodies } = expectLoop(cloud, 'Bash');
    expect(call.input).toMatchObject({ command: `echo ${printed}` });
    expect(textOf(toolResult.content)).toBe(printed);
    // The call went back after the thinking it came with.
    const callTurn = (bodies[1]!.messages as Turn[]).at(-2)!.content as Block[];
    expect(callTurn.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    for (const body of bodies) {
      // Claude Code thinks: its thinking and the betas it needs travel in the body.
      expect(body.thinking).toMatchObject({ type: 'enabled' });
      expect(body.anthropic_beta).toEqual(expect.arrayContaining(['interleaved-thinking-2025-05-14', 'context-management-2025-06-27']));
    }
    await vi.waitFor(() => expectLines(before, cloud, model, '/v1/messages', false));
  }

  for (const cloud of CLOUDS) {
    it(`Claude Code runs Bash on Claude on ${cloud.name}, natively: the call and its paired result in the cloud's envelope`, () => claudeCodeLoop(cloud, cloud.model), TEST_TIMEOUT_MS);

    it(
      `Codex runs exec_command on Claude on ${cloud.name}, translated from Responses to Messages`,
      async () => {
        const printed = `hello from codex on ${cloud.name}`;
        cloud.serve(`echo ${printed}`);
        const before = gw.lines().length;
        const stdout = await codex(cloud.alias, 'Print the line with echo.');
        expect(stdout).toMatch(/^The command printed: /);
        expect(stdout).toMatch(new RegExp(`Process exited with code 0[\\s\\S]*Output:\\n${printed}\\n`));

        const { call, result } = expectLoop(cloud, 'exec_command');
        expect(call.input).toEqual({ cmd: `echo ${printed}` });
        expect(textOf(result.content)).toMatch(new RegExp(`Output:\\n${printed}\\n`));
        await vi.waitFor(() => expectLines(before, cloud, cloud.alias, '/v1/responses', true));
      },
      TEST_TIMEOUT_MS,
    );
  }

  // The answer's `model` must be the name Claude Code asked for, or it sends the call back without
  // its thinking and the model refuses the tool result: on a passthrough route, the gateway has to
  // give the answer the caller's name for the model.
  it(
    "Claude Code runs Bash on Claude on bedrock under the operator's own name for the model",
    () => claudeCodeLoop(CLOUDS[0]!, CLOUDS[0]!.alias),
    TEST_TIMEOUT_MS,
  );
});
