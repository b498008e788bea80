// Answers built as a Response with a plain header object, not through
// c.body(): given more than one header, Hono turns them into a web Headers
// object, and @hono/node-server then copies that back into a plain object
// before writing, both costly for a GET answered from memory. With a plain
// object (and a string or byte body) @hono/node-server writes the answer
// straight from it. Only for routes that set no header with c.header()
// (those would be lost); CORS is added around the router (routes/cors.ts).
export function plainResponse(body: string | Uint8Array<ArrayBuffer> | null, status: number, headers: Record<string, string>): Response {
  return new Response(body, { status, headers });
}
