// The dashboard's shared state, owned here and nowhere else: what the
// daemon says about its presets (GET /api/v1/profiles, loaded once per
// page) and the lookups every view makes in it. Each view keeps its own
// private state in its module; nothing else is shared.

import { api } from './api.js';

let catalogue = null; // Promise of {profiles: [...], job_fields: [...]}

/** GET /api/v1/profiles once; a failure is retried on the next call. */
export function loadCatalogue() {
  if (!catalogue) {
    catalogue = api('GET', '/profiles')
      .then((r) => ({ profiles: r.json?.profiles ?? [], job_fields: r.json?.job_fields ?? [] }))
      .catch((e) => { catalogue = null; throw e; });
  }
  return catalogue;
}

export const loadProfiles = () => loadCatalogue().then((c) => c.profiles);

export const findProfile = (profiles, name) => profiles.find((p) => p.name === name) ?? null;

/** Every descriptor below a list of descriptors (objects' fields, lists' items' fields), depth first. */
function* walk(descs) {
  for (const d of descs ?? []) {
    yield d;
    if (d.fields) yield* walk(d.fields);
    if (d.item?.fields) yield* walk(d.item.fields);
  }
}

/** The descriptor of a field by name: the profile's own fields first, then the job's. */
export function findDescriptor(cat, profile, name) {
  const sources = [profile?.fields?.options, profile?.fields?.tests, cat?.job_fields,
    ...(cat?.profiles ?? []).flatMap((p) => [p.fields?.tests, p.fields?.options])];
  for (const src of sources) for (const d of walk(src)) if (d.name === name) return d;
  return null;
}

/** A summary column's title for a metric, from any preset's summary. */
export function columnTitle(cat, key) {
  for (const p of cat?.profiles ?? []) {
    const col = p.summary?.columns?.find((c) => c.key === key);
    if (col) return col.title;
  }
  return null;
}

/** The preset whose summary rows are of this kind (compare's `kind`). */
export const summaryOfKind = (cat, kind) => (cat?.profiles ?? []).find((p) => p.summary?.kind === kind)?.summary ?? null;
