/**
 * @module mcp/mock-link
 * The MCP server's link to a running mock's control API (/__mock/, spec/control-api.yaml), over
 * the project's one outbound client, so every call is bounded in time and bytes. The control
 * token, when the mock has one, goes in X-Mock-Token as any control client sends it; the mock's
 * own guard (src/server/control-guard.ts) decides, as it does for curl. A user name and password
 * in the URL are taken out of it and sent as an Authorization: Basic header (as `--base-url`'s
 * are, contract/secrets `credentialsFromBaseUrl`), so no message names them.
 */
import { credentialsFromBaseUrl } from '../contract/secrets.js';
import { OutboundClient } from '../http/outbound-client.js';
import { ToolInputError } from './bounds.js';

export interface MockLinkOptions {
  /** The mock's base URL (http://127.0.0.1:4010), with a user name and password or not. */
  readonly url: string;
  /** The control token the mock printed at start, when it has one. */
  readonly token?: string;
}

export interface ControlCall {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Below /__mock, with its leading slash: '/jobs'. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** The mock session the call acts on (X-Mock-Session, A-60); none: the default session. */
  readonly session?: string | undefined;
}

const maxAnswerBytes = 4 * 1024 * 1024;

export class MockLink {
  /** The mock's base URL without its user name and password: what messages name. */
  readonly url: string;
  private readonly token: string | undefined;
  private readonly authorization: string | undefined;
  private readonly client = new OutboundClient({ deadlineMs: 15_000, maxBodyBytes: maxAnswerBytes, connectionsPerOrigin: 2 });

  constructor(options: MockLinkOptions) {
    const { baseUrl, authorization } = credentialsFromBaseUrl(options.url);
    this.url = baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.authorization = authorization;
  }

  /** One control call; its JSON answer, or a ToolInputError carrying the mock's Error message. */
  async call(call: ControlCall): Promise<unknown> {
    const url = new URL(`${this.url}/__mock${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token !== undefined) headers['x-mock-token'] = this.token;
    if (this.authorization !== undefined) headers.authorization = this.authorization;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.session !== undefined) headers['x-mock-session'] = call.session;
    const outcome = await this.client.send({
      method: call.method,
      url,
      headers,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    });
    if (!outcome.answer)
      throw new ToolInputError(`the mock at ${this.url} did not answer (${outcome.failure?.message ?? 'timed out'}); is it running?`);
    const { answer } = outcome;
    if (answer.partial) throw new ToolInputError(`the mock's answer was not whole: ${answer.partial.message}`);
    const text = answer.body.toString('utf8');
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ToolInputError(`the mock answered ${answer.status} with a body that is not JSON; is ${this.url} a mock?`);
    }
    if (answer.status >= 400) {
      const error = body as { code?: unknown; message?: unknown } | null;
      throw new ToolInputError(
        `the mock answered ${answer.status} ${typeof error?.code === 'string' ? error.code : ''}: ${typeof error?.message === 'string' ? error.message : text.slice(0, 300)}`,
      );
    }
    return body;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
