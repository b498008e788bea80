// Shapes shared by the versioned resources (maps, datasets, templates).
//
// Each resource is a log of the store (one entry per version, version 1
// first). A version object holds the resource's ID field, its content and the
// stamps below. It is never rewritten once stored.
import type { DatasetRevision } from '../schema/dataset.ts';
import type { MapRevision } from '../schema/map.ts';
import type { TemplateRevision } from '../schema/template.ts';
import type { Collection } from '../store/types.ts';

// Type aliases, not interfaces: a stored version must stay assignable to the
// index signature of StoredVersion.
type VersionStamps = {
  version: number;
  lastUpdatedBy: string;
  /** ISO 8601 UTC, from the injected clock. */
  lastUpdatedOn: string;
};

/** The stamps every stored version has. */
type Stamped = VersionStamps & {
  /** A short sentence saying what this version changed (shown by the history). */
  change?: string;
  /** Set on a deletion (tombstone) version, which has no content. */
  deleted?: boolean;
};

/** A stored version whose content the code reading it does not know (history, lists, the generic routes). */
export type StoredVersion = { [key: string]: unknown } & Stamped;

/** A deletion version: its ID field and stamps, no content. */
export type Tombstone = StoredVersion & { deleted: true };

/** A stored version of a resource: the revision its schema validated, its ID field and the stamps. */
type StoredOf<R, Id extends string> = R & { [K in Id]: string } & Stamped;

/** What a map version holds: the map as validated, and whether that version is public. */
type MapContent = MapRevision & { public: boolean };
/** What a dataset version holds: its name and query as validated, and where the results of its last run are. */
export type DatasetContent = Pick<DatasetRevision, 'name' | 'query'> & {
  /** The blob of the last run's results (resources/results.ts); null before the first run. */
  resultsKey: string | null;
  /** Why the endpoint could not run when the dataset was created. */
  endpointProblems?: string[];
};
export type StoredMap = StoredOf<MapContent, 'mapId'>;
export type StoredDataset = StoredOf<DatasetContent, 'datasetId'>;
export type StoredTemplate = StoredOf<TemplateRevision, 'templateId'>;

/** What the generic collection needs to know about one kind of resource. */
export interface ResourceDescriptor {
  collection: Extract<Collection, 'maps' | 'datasets' | 'templates'>;
  /** Singular noun for messages: "map". */
  label: string;
  /** "mapId". */
  idField: string;
  /** Valid values of `fields`, in documentation order. */
  fields: readonly string[];
  defaultFields: readonly string[];
  /** Turns a stored version into the object clients see; identity when absent. */
  present?: (version: StoredVersion) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Fields that exist only in the presented object (need `present`). */
  computedFields?: readonly string[];
}

type VersionSelector = 'latest' | 'all' | number;

/** A parsed list request. */
export interface ListQuery {
  version: VersionSelector;
  fields: readonly string[];
  /** [field, accepted values]: values of one filter OR together, filters AND. */
  filters: ReadonlyArray<readonly [string, ReadonlyArray<string | boolean>]>;
  limit?: number;
  offset: number;
  /** [field, 1 ascending | -1 descending], most significant first; ties keep ID then version order. */
  sort?: ReadonlyArray<readonly [string, 1 | -1]>;
}

/** Which resources and versions a list may show (the public maps list narrows both). */
export interface Visibility {
  name: string;
  resource: (latest: StoredVersion) => boolean;
  version: (version: StoredVersion) => boolean;
}

/** A response body ready to send: serialized once, then reused. */
export interface Serialized {
  body: string;
  etag: string;
}

/** A list answer: the body whole (latest versions), or streamed piece by piece (older versions, read on demand). */
export interface ListPage {
  body?: string;
  stream?: () => AsyncIterable<string>;
  total: number;
}
