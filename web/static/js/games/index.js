// Game-specific screens. A screen may provide: view(root, ctx) for the table, entry(root, ctx) for
// manual entry, history(table, ctx), describe(event, state), editor(root, ctx, edit), turn(state).
// Games without one get the generic table and the "any event" form.
import spades from './spades.js';

export const screens = { spades };
