// Preloaded (`--import`) by bench/heap-profile.ts into the server it measures: the first SIGUSR2
// starts V8's sampling heap profiler, counting objects that scavenges and mark-compacts collect
// (the garbage a request leaves is what it costs in GC); the second stops it and writes the profile
// to HEAP_PROFILE_OUT.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'

const session = new Session()
session.connect()
let sampling = false
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true
    session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
    return
  }
  session.post('HeapProfiler.stopSampling', (err, res) => {
    if (err) throw err
    writeFileSync(process.env.HEAP_PROFILE_OUT, JSON.stringify(res.profile))
  })
})
