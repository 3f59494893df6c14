/// <reference types="vite/client" />

/** Build-time configuration (vite reads VITE_* variables from the environment or a .env file). */
interface ImportMetaEnv {
  /** The API base URL, such as http://127.0.0.1:4010. The `api` query parameter overrides it. */
  readonly VITE_EVIDENCE_API_URL?: string;
  /** 'msw' to answer from the mock inside the page, 'off' to call the API over the network. The `mock` query parameter overrides it. */
  readonly VITE_EVIDENCE_MOCK?: string;
}
