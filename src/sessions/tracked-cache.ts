import type { Redis } from 'ioredis'

/** A GET that has left and not yet been answered; `stale` once its key was invalidated meanwhile. */
export interface PendingRead {
  count: number
  stale: boolean
}

interface Entry<V> {
  readonly value: V
  /** ms on the store's clock after which the key itself is gone from Redis (its PX). */
  readonly deadline: number
}

export const READ_CACHE_MAX_ENTRIES = 10_000

/**
 * The local half of server-assisted client-side caching: values read from Redis, kept only until
 * Redis says the key changed. It holds what the reader found (the caller never caches a miss, so
 * a stranger cannot fill it with random codes), at most `maxEntries` (oldest dropped first: a
 * Map keeps insertion order), each until its deadline. The in-flight race of the Redis docs —
 * an invalidation overtaking the reply of a GET sent before it — is closed by the pending marks:
 * a GET's reply is cached only if its key was not invalidated (nor the cache switched off) while
 * it was on its way. Pure: the Redis wiring is `trackReads` below.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, Entry<V>>()
  private pending = new Map<string, PendingRead>()
  private on = false

  constructor(private readonly maxEntries = READ_CACHE_MAX_ENTRIES) {}

  get enabled(): boolean {
    return this.on
  }

  get size(): number {
    return this.entries.size
  }

  /** The cached value while caching is on and `nowMs` is before its deadline. */
  lookup(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (this.on && nowMs < entry.deadline) return entry.value
    this.entries.delete(key)
    return undefined
  }

  /** A GET of `key` leaves now; undefined when caching is off (its reply will not be cached). */
  begin(key: string): PendingRead | undefined {
    if (!this.on) return undefined
    let read = this.pending.get(key)
    if (read === undefined) {
      read = { count: 0, stale: false }
      this.pending.set(key, read)
    }
    read.count++
    return read
  }

  /** The GET of `begin` answered (or failed: no value); its value is kept only if nothing intervened. */
  settle(key: string, read: PendingRead | undefined, value?: V, deadline = 0): void {
    if (read === undefined) return
    if (--read.count === 0 && this.pending.get(key) === read) this.pending.delete(key)
    if (value === undefined || read.stale || !this.on) return
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      this.entries.delete(this.entries.keys().next().value as string)
    }
    this.entries.set(key, { value, deadline })
  }

  /** Redis says these keys changed (null: a FLUSHDB/FLUSHALL, everything did). */
  invalidate(keys: readonly string[] | null): void {
    if (keys === null) {
      this.dropAll()
      return
    }
    for (const key of keys) {
      this.entries.delete(key)
      const read = this.pending.get(key)
      if (read !== undefined) read.stale = true
    }
  }

  enable(): void {
    this.on = true
  }

  /** Invalidations may be lost from now on: forget everything, cache nothing until enabled again. */
  disable(): void {
    this.on = false
    this.dropAll()
  }

  private dropAll(): void {
    this.entries.clear()
    for (const read of this.pending.values()) read.stale = true
    this.pending = new Map()
  }
}

const INVALIDATE_CHANNEL = '__redis__:invalidate'
const HEARTBEAT_MS = 1_000 // a silent partition turns caching off within this and the command timeout
const RETRY_MS = 1_000 // a failed handshake with both connections up is tried again after this

export interface TrackedReads {
  /** The connection the tracked GETs go through. */
  readonly reader: Redis
  close(): Promise<void>
}

/**
 * Keeps `cache` consistent by Redis itself (CLIENT TRACKING, default mode, REDIRECT): a reader
 * connection whose reads Redis tracks, and a subscriber to `__redis__:invalidate` that receives
 * the keys changed since (written, deleted, expired, evicted; null on a flush). The subscriber
 * speaks RESP2, because under RESP3 (ioredis 6's default) Redis sends the invalidations as push
 * frames, which ioredis drops. Caching is on only while both connections are ready and tracking
 * is confirmed for the subscriber's current id; any close, end or reconnect of either turns it
 * off and empties the cache (invalidations may have been lost), and a heartbeat on the subscriber
 * turns it off when Redis stops answering without closing. While off, reads go to Redis uncached,
 * so Redis down is still a failed read, never a cached answer.
 */
export function trackReads(
  main: Redis,
  cache: ReadCache<unknown>,
  onError: (err: Error) => void,
): TrackedReads {
  // Named after the main client, so that an operator (or a test) can tell them apart in CLIENT LIST.
  const name = main.options.connectionName || 'toolgate'
  const reader = main.duplicate({ lazyConnect: false, connectionName: `${name}:session-reads` })
  const subscriber = main.duplicate({
    lazyConnect: false,
    connectionName: `${name}:session-invalidations`,
    protocol: 2,
    autoResubscribe: false,
  })
  let subscribedId: string | undefined
  let attempt = 0
  let retry: NodeJS.Timeout | undefined
  const ready = () => reader.status === 'ready' && subscriber.status === 'ready'
  const off = () => {
    attempt++
    cache.disable()
  }
  const handshake = async () => {
    const mine = ++attempt
    try {
      if (subscribedId === undefined) {
        const id = String(await subscriber.client('ID'))
        await subscriber.subscribe(INVALIDATE_CHANNEL)
        subscribedId = id
      }
      await reader.client('TRACKING', 'ON', 'REDIRECT', subscribedId)
      if (mine === attempt && ready()) cache.enable()
    } catch (err) {
      onError(err as Error)
      if (mine === attempt && ready()) retry = setTimeout(onReady, RETRY_MS).unref()
    }
  }
  const onReady = () => {
    if (ready()) void handshake()
  }
  const heartbeat = setInterval(() => {
    if (!cache.enabled) return
    subscriber.ping().catch(() => {
      off()
      subscriber.disconnect(true) // reconnects; its 'ready' redoes the handshake
    })
  }, HEARTBEAT_MS).unref()
  subscriber.on('messageBuffer', (channel: Buffer, keys: Buffer[] | null) => {
    if (channel.toString() !== INVALIDATE_CHANNEL) return
    cache.invalidate(keys === null ? null : keys.map(String))
  })
  for (const connection of [reader, subscriber]) {
    connection.on('error', onError)
    connection.on('ready', onReady)
    for (const event of ['close', 'end', 'reconnecting']) connection.on(event, off)
  }
  for (const event of ['close', 'end', 'reconnecting']) subscriber.on(event, () => (subscribedId = undefined))
  onReady()
  return {
    reader,
    async close() {
      clearInterval(heartbeat)
      clearTimeout(retry)
      off()
      await Promise.all([reader, subscriber].map(quit))
    },
  }
}

/** QUIT cannot be sent while Redis is away (no offline queue): then the socket is just closed. */
async function quit(connection: Redis): Promise<void> {
  if (connection.status === 'ready') await connection.quit().catch(() => connection.disconnect())
  else connection.disconnect()
}
