// The body of POST and PUT /api/v1/userdata/: the signed-in user's favourites
// and recently edited resources, as Terranova's editor keeps them: lists of
// IDs under `maps`, `datasets` and `templates`. Bounded, since it is stored.
import * as v from 'valibot';

const MAX_IDS = 1000;
const Ids = v.pipe(v.array(v.pipe(v.string('expected an ID'), v.maxLength(100, 'expected an ID of at most 100 characters')), 'expected a list of IDs'),
  v.maxLength(MAX_IDS, `expected at most ${MAX_IDS} IDs`));
const Lists = v.optional(v.strictObject({
  maps: v.optional(Ids, []),
  datasets: v.optional(Ids, []),
  templates: v.optional(Ids, []),
}, 'expected {maps, datasets, templates}, each a list of IDs'), {});

export const UserDataSchema = v.object({
  favorites: Lists,
  lastEdited: Lists,
});

export type UserData = v.InferOutput<typeof UserDataSchema>;
