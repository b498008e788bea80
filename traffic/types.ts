// The words of live traffic (docs/traffic.md): an interface is read by its
// router (`instance`) and port (`ifName`); a source answers a reading per
// interface; a circuit's traffic is what the direction rule makes of the
// readings of its ends.

export interface InterfaceRef {
  instance: string;
  ifName: string;
}

/** One interface as a source read it; a field is absent when the source had no sample for it. */
export interface Reading {
  /** Bits per second received and sent. */
  inBps?: number;
  outBps?: number;
  /** Its speed in bits per second (ifHighSpeed x 10^6). */
  speedBps?: number;
  /** ifOperStatus: 1 up, 2 down, others as reported. */
  oper?: number;
  /** Unix seconds of its newest counter sample. */
  seenAt?: number;
}

/** What a render asks: the readings at `at` (unix seconds), or the busiest values over `range` seconds ending then. */
export interface ReadRequest {
  at: number;
  range?: { seconds: number; stat: 'max' | 'p95' };
}

export interface ReadResult {
  readings: Map<string, Reading>;
  /** HTTP requests the source was sent (the query plan's cost). */
  requests: number;
}

export const interfaceKey = (r: InterfaceRef) => `${r.instance}\u0000${r.ifName}`;

export interface TrafficSource {
  name: string;
  kind: 'prometheus' | 'synthetic';
  stepSeconds: number;
  windowSeconds: number;
  timeoutMs: number;
  read(interfaces: readonly InterfaceRef[], request: ReadRequest): Promise<ReadResult>;
  /** What GET /api/v1/traffic/sources/ shows of it: never a credential. */
  describe(): Record<string, unknown>;
  health(): Promise<{ status: 'ok' | 'failing'; detail?: string }>;
}

export type { CircuitTraffic } from '../render/traffic-edges.ts';
