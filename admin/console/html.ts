// Server-rendered HTML: a tagged template that escapes every value (escape-html) unless it is already
// markup made by this template, so a CRM's message or a record id can never become markup.
import escapeHtml from 'escape-html';

export class Markup {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = Markup | string | number | boolean | null | undefined | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1]!;
  });
  return new Markup(text);
}

/** JSON for a <script type="application/json"> data block: nothing in it can close the element. */
export function jsonBlock(id: string, data: unknown): Markup {
  const json = JSON.stringify(data).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  return new Markup(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}
