/** How a social network shows the link when the meta fields are set (a preview, nothing is fetched but the image). */
export function SocialCard(props: { url: string; title: string; description: string; image: string }) {
  let host = ''
  try {
    host = new URL(props.url).host
  } catch {
    host = 'example.com'
  }
  const image = /^https:\/\/\S+\.(png|jpe?g)(\?.*)?$/i.test(props.image) ? props.image : ''
  return (
    <figure className="social-card" aria-label="Social card preview">
      <div className="img">{image ? <img src={image} alt="" referrerPolicy="no-referrer" /> : <span>No image</span>}</div>
      <figcaption className="body">
        <div className="host">{host}</div>
        <div className="title">{props.title || 'Title of the shared page'}</div>
        <div className="desc">{props.description || 'The description people see under the title.'}</div>
      </figcaption>
    </figure>
  )
}
