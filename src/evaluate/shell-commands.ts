/**
 * Reads the simple commands out of a bash script (an agent's tool call), so that a target is only
 * counted where bash would run it: at a command position, not inside quotes, `echo` arguments,
 * comments or heredoc bodies. Best effort, no evaluation: quotes, backslashes, `$(...)`, backticks,
 * `<(...)`, `${...}`, `$((...))`, subshells, `{ }` groups, the reserved words of `if`/`while`/`for`,
 * redirections (dropped, fd numbers too) and heredocs (bodies skipped) are understood; `case`
 * patterns, aliases and functions are not.
 */

export interface ShellWord {
  /** Offset of the word's first character in the script (a quote, when it starts with one). */
  start: number;
  end: number;
  /** The word after quote removal; substitutions are kept as written (`$(cat id)`, `$HOME`). */
  text: string;
  /** Whether any part of the word was quoted or escaped (so it cannot be a reserved word). */
  quoted: boolean;
}

export interface SimpleCommand {
  /** Its words, assignments included, redirections left out. Never empty. */
  words: ShellWord[];
  /** Offset of what ended it: a control operator, a closing `)` or backtick, or the script's end. */
  end: number;
}

/** Reserved words after which a command starts; they are not part of it. */
const COMMAND_OPENERS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "time"]);
/** Reserved words that close a compound command; what follows them is redirections or an operator. */
const COMMAND_CLOSERS = new Set(["fi", "done", "esac", "}"]);
const WORD_BREAK = new Set([" ", "\t", "\r", "\n", ";", "&", "|", "<", ">", "(", ")"]);

/**
 * The simple commands of `script` in the order they complete: a command substitution completes
 * before the command that contains it, so the last entry is the one whose exit status is the
 * script's (unless the script exits early or runs something in the background).
 */
export function findSimpleCommands(script: string): SimpleCommand[] {
  return new ScriptReader(script).read();
}

interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
}

class ScriptReader {
  private pos = 0;
  private readonly commands: SimpleCommand[] = [];
  private readonly heredocs: Heredoc[] = [];

  constructor(private readonly script: string) {}

  read(): SimpleCommand[] {
    this.readList(null);
    return this.commands;
  }

  /** Commands up to `closer` (consumed) or the end of the script. */
  private readList(closer: ")" | "`" | null): void {
    const text = this.script;
    let words: ShellWord[] = [];
    const finish = () => {
      if (words.length > 0) this.commands.push({ words, end: this.pos });
      words = [];
    };
    while (this.pos < text.length) {
      const char = text[this.pos] as string;
      const next = text[this.pos + 1];
      if (char === closer) {
        finish();
        this.pos += 1;
        return;
      }
      if (char === " " || char === "\t" || char === "\r") {
        this.pos += 1;
      } else if (char === "\\" && next === "\n") {
        this.pos += 2; // line continuation
      } else if (char === "\n") {
        finish();
        this.pos += 1;
        this.skipHeredocBodies();
      } else if (char === "#") {
        const newline = text.indexOf("\n", this.pos);
        this.pos = newline === -1 ? text.length : newline;
      } else if (char === ";" || char === "|" || (char === "&" && next !== ">")) {
        finish();
        this.pos += 1;
        // `;;`, `&&`, `||`, `|&`, `;&`: one operator.
        if (next === char || (char === "|" && next === "&") || (char === ";" && next === "&")) this.pos += 1;
      } else if ((char === "<" || char === ">") && next === "(") {
        // Process substitution: its commands run; it stands for a file name in this one.
        const start = this.pos;
        this.pos += 2;
        this.readList(")");
        words.push({ start, end: this.pos, text: text.slice(start, this.pos), quoted: true });
      } else if (char === "<" || char === ">" || char === "&") {
        this.skipRedirection();
      } else if (char === "(") {
        if (words.length === 0) {
          this.pos += 1;
          this.readList(")"); // a subshell (or `((...))`, read the same way: harmless)
        } else {
          this.skipBalanced("(", ")"); // `name ()` of a function definition
        }
      } else if (char === ")") {
        finish(); // unmatched: a `case` pattern
        this.pos += 1;
      } else {
        const word = this.readWord(closer);
        const fdRedirect = /^\d+$/.test(word.text) && !word.quoted && /[<>]/.test(text[this.pos] ?? "");
        if (fdRedirect) {
          this.skipRedirection();
        } else if (words.length === 0 && !word.quoted && COMMAND_OPENERS.has(word.text)) {
          // The command starts after the reserved word.
        } else if (words.length === 0 && !word.quoted && COMMAND_CLOSERS.has(word.text)) {
          // Nothing runs here; redirections or an operator follow.
        } else {
          words.push(word);
        }
      }
    }
    finish();
  }

  private readWord(closer: ")" | "`" | null): ShellWord {
    const text = this.script;
    const start = this.pos;
    let value = "";
    let quoted = false;
    while (this.pos < text.length) {
      const char = text[this.pos] as string;
      if (WORD_BREAK.has(char) || char === closer) break;
      if (char === "\\") {
        if (text[this.pos + 1] !== "\n") value += text[this.pos + 1] ?? "";
        quoted = true;
        this.pos += 2;
      } else if (char === "'") {
        const close = text.indexOf("'", this.pos + 1);
        const end = close === -1 ? text.length : close;
        value += text.slice(this.pos + 1, end);
        quoted = true;
        this.pos = end + 1;
      } else if (char === '"') {
        value += this.readDoubleQuoted();
        quoted = true;
      } else if (char === "$" || char === "`") {
        value += this.readExpansion();
      } else if (char === "=" && text[this.pos + 1] === "(") {
        const from = this.pos;
        this.pos += 1;
        this.skipBalanced("(", ")"); // an array assignment
        value += text.slice(from, this.pos);
      } else {
        value += char;
        this.pos += 1;
      }
    }
    if (this.pos === start) this.pos += 1; // never stall on an unexpected character
    return { start, end: this.pos, text: value, quoted };
  }

  /** From the opening `"` to past the closing one; substitutions inside are read as commands. */
  private readDoubleQuoted(): string {
    const text = this.script;
    let value = "";
    this.pos += 1;
    while (this.pos < text.length && text[this.pos] !== '"') {
      const char = text[this.pos] as string;
      if (char === "\\" && /["\\$`\n]/.test(text[this.pos + 1] ?? "")) {
        if (text[this.pos + 1] !== "\n") value += text[this.pos + 1];
        this.pos += 2;
      } else if (char === "$" || char === "`") {
        value += this.readExpansion();
      } else {
        value += char;
        this.pos += 1;
      }
    }
    this.pos += 1;
    return value;
  }

  /** A `$...` or backtick expansion, kept as written; the commands of a substitution are read. */
  private readExpansion(): string {
    const text = this.script;
    const start = this.pos;
    const next = text[this.pos + 1];
    if (text[this.pos] === "`") {
      this.pos += 1;
      this.readList("`");
    } else if (next === "(" && text[this.pos + 2] === "(") {
      this.pos += 1;
      this.skipBalanced("(", ")"); // arithmetic
    } else if (next === "(") {
      this.pos += 2;
      this.readList(")");
    } else if (next === "{") {
      this.pos += 1;
      this.skipBalanced("{", "}");
    } else if (next === "'") {
      // ANSI-C quoting: $'...' with backslash escapes.
      this.pos += 2;
      while (this.pos < text.length && text[this.pos] !== "'") this.pos += text[this.pos] === "\\" ? 2 : 1;
      this.pos += 1;
      return text.slice(start + 2, Math.min(this.pos - 1, text.length));
    } else {
      this.pos += 1;
    }
    return text.slice(start, this.pos);
  }

  /** A redirection operator and its target word; `<<` and `<<-` queue a heredoc body to skip. */
  private skipRedirection(): void {
    const text = this.script;
    const match = /^(?:&>>?|<<<|<<-?|<>|>>|>&|<&|>\||<|>)/.exec(text.slice(this.pos, this.pos + 3));
    const operator = match ? match[0] : (text[this.pos] as string);
    this.pos += operator.length;
    if (operator === ">&" || operator === "<&") {
      const dup = /^\s*(?:\d+|-)(?=$|[\s;&|)<>])/.exec(text.slice(this.pos));
      if (dup) {
        this.pos += dup[0].length;
        return;
      }
    }
    while (text[this.pos] === " " || text[this.pos] === "\t") this.pos += 1;
    if (this.pos >= text.length || WORD_BREAK.has(text[this.pos] as string)) return;
    const target = this.readWord(null);
    if (operator === "<<" || operator === "<<-") {
      this.heredocs.push({ delimiter: target.text, stripTabs: operator === "<<-" });
    }
  }

  /** After a newline: the bodies of the heredocs opened on the line just ended. */
  private skipHeredocBodies(): void {
    const text = this.script;
    for (const heredoc of this.heredocs.splice(0)) {
      while (this.pos < text.length) {
        const newline = text.indexOf("\n", this.pos);
        const lineEnd = newline === -1 ? text.length : newline;
        let line = text.slice(this.pos, lineEnd);
        this.pos = newline === -1 ? text.length : newline + 1;
        if (heredoc.stripTabs) line = line.replace(/^\t+/, "");
        if (line === heredoc.delimiter) break;
      }
    }
  }

  /** From an opening bracket at `pos` to past its match; quotes inside are honoured. */
  private skipBalanced(open: string, close: string): void {
    const text = this.script;
    let depth = 0;
    while (this.pos < text.length) {
      const char = text[this.pos] as string;
      if (char === "\\") {
        this.pos += 2;
        continue;
      }
      if (char === "'" || char === '"') {
        const end = text.indexOf(char, this.pos + 1);
        this.pos = end === -1 ? text.length : end + 1;
        continue;
      }
      this.pos += 1;
      if (char === open) depth += 1;
      else if (char === close) {
        depth -= 1;
        if (depth === 0) return;
      }
    }
  }
}
