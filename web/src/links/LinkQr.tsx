import { useEffect, useState } from 'react'
import QRCode from 'qrcode'
import { download } from '../qr/download'

/** The QR code of a short URL, drawn in the browser, with PNG and SVG downloads. */
export function LinkQr({ url, name }: { url: string; name: string }) {
  const [png, setPng] = useState<string>()
  useEffect(() => {
    QRCode.toDataURL(url, { width: 320, margin: 2, errorCorrectionLevel: 'M' }).then(setPng, () => setPng(undefined))
  }, [url])
  return (
    <div>
      <div className="qr-preview">{png ? <img src={png} width={320} height={320} alt={`QR code of ${url}`} /> : null}</div>
      <p className="sub wrap-anywhere">{url}</p>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => png && download(png, `${name}-qr.png`)}>
          Download PNG
        </button>
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            const svg = await QRCode.toString(url, { type: 'svg', margin: 2 })
            download(URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' })), `${name}-qr.svg`)
          }}
        >
          Download SVG
        </button>
      </div>
    </div>
  )
}
