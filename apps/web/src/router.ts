/** A few client routes on the History API; the server answers each of them with index.html. */
import { useEffect, useState } from 'preact/hooks';

export const ROUTES = ['/', '/convert', '/account', '/signin', '/signup', '/verify'] as const;

export function navigate(to: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return path;
}

/** An in-app link: a real <a href> (keyboard, middle-click) that navigates without a reload. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  event.preventDefault();
  navigate(anchor.getAttribute('href') ?? '/');
}
