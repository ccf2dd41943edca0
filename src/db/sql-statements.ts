// A migration file's statements one by one (docs/scaling.md "On Citus"): Citus 13 fails DDL on its
// tables sent several to a query string inside a transaction ("cannot insert multiple commands into a
// prepared statement", from the command it forwards to the workers), while the same statements sent
// one at a time in one transaction work, as `psql -1 -f` sends them. The split knows what may hold a
// semicolon: quoted strings and names, comments, and dollar-quoted bodies ($$ ... $$, $tag$ ... $tag$).

/** The statements of a script, in order, without empty ones; each keeps its own text. */
export function splitSqlStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const text = script.slice(start, end).trim();
    if (stripComments(text).trim() !== '') statements.push(text);
    start = end + 1;
  };
  while (i < script.length) {
    const c = script[i];
    const next = script[i + 1];
    if (c === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end + 1;
    } else if (c === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end === -1 ? script.length : end + 2;
    } else if (c === "'" || c === '"') {
      // A doubled quote inside is the quote itself: the scan goes on past it.
      let j = i + 1;
      while (j < script.length && !(script[j] === c && script[j + 1] !== c)) j += script[j] === c ? 2 : 1;
      i = j + 1;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(script.slice(i))?.[0];
      if (tag === undefined) {
        i++;
      } else {
        const end = script.indexOf(tag, i + tag.length);
        i = end === -1 ? script.length : end + tag.length;
      }
    } else if (c === ';') {
      push(i);
      i++;
    } else {
      i++;
    }
  }
  push(script.length);
  return statements;
}

function stripComments(text: string): string {
  return text.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}
