/** An ISO time as messages show it: "2026-11-28 08:40:12". */
function shownTime(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}

/**
 * When cached answers were stored, as every message of assay/vitest says it: "2026-11-28 08:40:12 UTC", or a
 * span "2026-11-28 08:40:12 – 08:52:03 UTC" (the date once when both are on one day). Loads nothing (the
 * reporter imports it).
 */
export function storedWhen(from: string, to: string): string {
  if (shownTime(from) === shownTime(to)) return `${shownTime(from)} UTC`;
  const end = from.slice(0, 10) === to.slice(0, 10) ? shownTime(to).slice(11) : shownTime(to);
  return `${shownTime(from)} – ${end} UTC`;
}
