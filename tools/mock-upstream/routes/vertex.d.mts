// Types of vertex.mjs, for TypeScript callers (tests).

/** The mock's service-account JSON key, its token endpoint at `baseUrl`. */
export declare function vertexServiceAccount(baseUrl: string): {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
};
