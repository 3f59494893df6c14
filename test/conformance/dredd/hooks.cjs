/*
 * Dredd hooks for `npm run dredd` (CommonJS: Dredd 14 loads hooks with require()).
 *
 * Dredd sends one request example per operation and, by default, runs only the 2xx
 * transactions of a Swagger 2 document. These hooks make each documented status happen:
 * a fresh Idempotency-Key for the 202, the created jobId for getJob's 200, and for every
 * documented error status a request that provokes it (and un-skip that transaction).
 */
const hooks = require('hooks');

const state = { key: undefined, body: undefined, jobId: undefined };
const run = `${process.pid}-${Date.now()}`;

function header(transaction, name, value) {
  const existing = Object.keys(transaction.request.headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  transaction.request.headers[existing ?? name] = value;
}

function setBody(transaction, value) {
  transaction.request.body = typeof value === 'string' ? value : JSON.stringify(value);
  header(transaction, 'Content-Length', String(Buffer.byteLength(transaction.request.body)));
}

/** What to do to the example request so the server answers `status`, per operation. */
const provoke = {
  'POST /v0/evaluations': {
    202: (transaction) => {
      state.key = `dredd-${run}`;
      state.body = JSON.parse(transaction.request.body);
      header(transaction, 'Idempotency-Key', state.key);
    },
    // A required property removed: 400 (docs/assumptions.md A-2).
    400: (transaction) => {
      const { profile: _profile, ...body } = JSON.parse(transaction.request.body);
      header(transaction, 'Idempotency-Key', `dredd-${run}-400`);
      setBody(transaction, body);
    },
    // The 202's key with another body: 409.
    409: (transaction) => {
      header(transaction, 'Idempotency-Key', state.key);
      setBody(transaction, { ...state.body, operationId: `${state.body.operationId}-other` });
    },
    // A value over a maximum: 413.
    413: (transaction) => {
      header(transaction, 'Idempotency-Key', `dredd-${run}-413`);
      setBody(transaction, { ...JSON.parse(transaction.request.body), operationId: 'x'.repeat(129) });
    },
  },
  'POST /v0/verifications': {
    200: () => undefined,
    400: (transaction) => setBody(transaction, {}),
  },
  'GET /v0/jobs/{jobId}': {
    200: (transaction) => {
      transaction.fullPath = transaction.fullPath.replace(/\/v0\/jobs\/[^/?]+/, `/v0/jobs/${state.jobId}`);
      transaction.request.uri = transaction.request.uri.replace(/\/v0\/jobs\/[^/?]+/, `/v0/jobs/${state.jobId}`);
    },
    404: (transaction) => {
      transaction.fullPath = transaction.fullPath.replace(/\/v0\/jobs\/[^/?]+/, '/v0/jobs/job_DREDD_UNKNOWN');
      transaction.request.uri = transaction.request.uri.replace(/\/v0\/jobs\/[^/?]+/, '/v0/jobs/job_DREDD_UNKNOWN');
    },
  },
  'GET /health': { 200: () => undefined },
};

function operationOf(transaction) {
  const path = transaction.origin.resourceName;
  return `${transaction.request.method} ${path}`;
}

hooks.beforeEach((transaction, done) => {
  const action = provoke[operationOf(transaction)]?.[transaction.expected.statusCode];
  if (!action) {
    transaction.fail = `no hook provokes ${transaction.expected.statusCode} on ${operationOf(transaction)}; add one to ${__filename}`;
  } else {
    transaction.skip = false;
    action(transaction);
  }
  done();
});

hooks.afterEach((transaction, done) => {
  if (operationOf(transaction) === 'POST /v0/evaluations' && transaction.expected.statusCode === '202') {
    state.jobId = JSON.parse(transaction.real.body).jobId;
  }
  done();
});
