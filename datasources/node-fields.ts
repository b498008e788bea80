// How node_deduplication_field and node_group_criteria name an endpoint
// field: without regard to case, with or without an `endpoints.` prefix.
// Endpoint fields are stored in lower case, so the renderer reads
// endpoint[nodeFieldKey(name)].
export const nodeFieldKey = (name: string) => name.trim().toLowerCase().replace(/^endpoints\./, '');
