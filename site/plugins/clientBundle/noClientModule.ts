// Stands in, in the browser bundle, for a theme client module whose work is done later (see ./index.ts).
export {};
