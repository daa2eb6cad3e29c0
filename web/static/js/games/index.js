// Game-specific screens. A screen may provide: view(root, ctx) for the table, entry(root, ctx) for
// manual entry, history(table, ctx), describe(event, state), editor(root, ctx, edit), edited(fields, original)
// (the Log's edit as sent, from the fields typed and the event edited), turn(state), keepEntry (truthy: a
// live update while the entry has the focus redraws only the table), said (codes of information rulings said to
// screen readers), shown (those also shown in a quiet banner) and ends ({ code: { code, sameData } }: the banners
// an information ruling ends; alerts.js).
// Games without one get the generic table and the "any event" form.
import push from './push.js';
import snap from './snap.js';
import spades from './spades.js';
import spit from './spit.js';
import ten from './ten.js';

export const screens = { push, snap, spades, spit, ten };
