import { Redis, type RedisOptions } from 'ioredis'

/**
 * A Redis connection for the deployment `deploymentId` (db/deployment-settings.ts): every key its
 * commands name starts with `kurz:<id>:` (ioredis's keyPrefix), and `channelOf()` gives its pub/sub
 * channels the same start, since a channel is heard across all of a Redis server's databases.
 */
export function connectRedis(url: string, deploymentId: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { ...options, keyPrefix: `kurz:${deploymentId}:` })
}

/** `name` as the deployment of `redis` publishes and subscribes it. */
export const channelOf = (redis: Redis, name: string) => `${redis.options.keyPrefix ?? ''}${name}`
