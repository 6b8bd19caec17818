import { api } from '../api/client'
import type { Campaign, Channel, Domain, ListOf, OverlayItem, Pixel, SplashItem } from '../api/types'
import { useLoad } from '../ui/hooks'

export interface LinkOptions {
  domains: Domain[]
  channels: Channel[]
  campaigns: Campaign[]
  pixels: Pixel[]
  splash: SplashItem[]
  overlays: OverlayItem[]
}

const all = <K extends string, T>(path: string, key: K) =>
  api.get<ListOf<K, T>>(`${path}?limit=1000`).then(
    (r) => r.data[key],
    // a plan without the feature answers 403: the form just offers nothing for it
    () => [] as T[],
  )

/** Everything a link form and the list filters offer to choose from, loaded once per page. */
export function useLinkOptions() {
  return useLoad<LinkOptions>(
    async () => {
      const [domains, channels, campaigns, pixels, splash, overlays] = await Promise.all([
        all<'domains', Domain>('/api/domains', 'domains'),
        all<'channels', Channel>('/api/channels', 'channels'),
        all<'campaigns', Campaign>('/api/campaigns', 'campaigns'),
        all<'pixels', Pixel>('/api/pixels', 'pixels'),
        all<'splash', SplashItem>('/api/splash', 'splash'),
        all<'cta', OverlayItem>('/api/overlay', 'cta'),
      ])
      return { domains, channels, campaigns, pixels, splash, overlays }
    },
    [],
  )
}
