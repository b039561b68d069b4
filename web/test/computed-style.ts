/**
 * A quick getComputedStyle for the console's component tests.
 *
 * jsdom's own matches every rule of every style sheet against the element on each call (its cache
 * is dropped on any change to the document), and antd's CSS-in-JS puts thousands of rules in the
 * document: that was half of a console test's time. What the tests and the libraries read is
 * whether an element is shown or takes a click (testing-library's role queries and accessible
 * names, jest-dom's toBeVisible, user-event's pointer-events check) and the box of a text area
 * antd measures. So the style returned is the element's inline style over what the sheets say of
 * the few properties that decide that, with visibility and pointer-events inherited as in CSS.
 * Like jsdom, it ignores specificity (a later rule wins) and reads media rules for "screen" only.
 */
const DECIDING = ['display', 'visibility', 'opacity', 'pointer-events'] as const;
type Deciding = (typeof DECIDING)[number];
/** The inherited ones and their initial values, which jsdom resolves too (user-event stops at the first). */
const INHERITED = { visibility: 'visible', 'pointer-events': 'auto' } as const;

interface Declaration {
  property: Deciding;
  value: string;
  important: boolean;
}
interface DecidingRule {
  selector: string;
  declarations: Declaration[];
}

/** jsdom's default style sheet: what it hides. */
const USER_AGENT_RULES: DecidingRule[] = [
  {
    selector: 'head, meta, title, link, style, script, input[type="hidden"], datalist, param, rp, noframes, template, dialog:not([open]), [hidden]',
    declarations: [{ property: 'display', value: 'none', important: false }],
  },
];

const rulesBySheet = new WeakMap<CSSStyleSheet, { count: number; rules: DecidingRule[] }>();

function decidingRules(sheet: CSSStyleSheet): DecidingRule[] {
  let list: CSSRuleList;
  try {
    list = sheet.cssRules;
  } catch {
    return [];
  }
  const cached = rulesBySheet.get(sheet);
  if (cached && cached.count === list.length) return cached.rules;
  const rules: DecidingRule[] = [];
  const collect = (rule: CSSRule) => {
    if ('media' in rule && 'cssRules' in rule) {
      if (Array.prototype.includes.call((rule as CSSMediaRule).media, 'screen')) {
        for (const inner of Array.from((rule as CSSMediaRule).cssRules)) collect(inner);
      }
      return;
    }
    const styleRule = rule as CSSStyleRule;
    if (!styleRule.selectorText || !styleRule.style) return;
    const declarations: Declaration[] = [];
    for (const property of DECIDING) {
      const value = styleRule.style.getPropertyValue(property);
      if (value) declarations.push({ property, value, important: styleRule.style.getPropertyPriority(property) === 'important' });
    }
    if (declarations.length > 0) rules.push({ selector: styleRule.selectorText, declarations });
  };
  for (const rule of Array.from(list)) collect(rule);
  rulesBySheet.set(sheet, { count: list.length, rules });
  return rules;
}

function matches(element: Element, selector: string): boolean {
  try {
    return element.matches(selector);
  } catch {
    return false;
  }
}

/** What the sheets and the inline style give `element` for `wanted`, without inheritance. */
function specified(element: Element, rules: DecidingRule[], wanted: readonly Deciding[]): Map<Deciding, string> {
  const values = new Map<Deciding, { value: string; important: boolean }>();
  for (const rule of rules) {
    if (!rule.declarations.some((declaration) => wanted.includes(declaration.property)) || !matches(element, rule.selector)) continue;
    for (const { property, value, important } of rule.declarations) {
      if (!wanted.includes(property)) continue;
      if (values.get(property)?.important && !important) continue;
      values.set(property, { value, important });
    }
  }
  const inline = (element as HTMLElement).style;
  for (const property of wanted) {
    const value = inline?.getPropertyValue(property);
    if (value && !(values.get(property)?.important && inline.getPropertyPriority(property) !== 'important')) {
      values.set(property, { value, important: false });
    }
  }
  return new Map([...values].map(([property, { value }]) => [property, value]));
}

/** Installs the quick getComputedStyle on `window` (pseudo-elements are ignored, as jsdom logs them). */
export function installComputedStyle(window: Window): void {
  const document = window.document;
  window.getComputedStyle = (element: Element) => {
    const rules = [...USER_AGENT_RULES, ...Array.from(document.styleSheets).flatMap((sheet) => decidingRules(sheet))];
    const style = document.createElement('div').style;
    style.cssText = (element as HTMLElement).style?.cssText ?? '';
    for (const [property, value] of specified(element, rules, DECIDING)) style.setProperty(property, value);
    for (const [property, initial] of Object.entries(INHERITED) as Array<[Deciding, string]>) {
      if (style.getPropertyValue(property)) continue;
      let value: string | undefined;
      for (let ancestor = element.parentElement; ancestor && !value; ancestor = ancestor.parentElement) {
        value = specified(ancestor, rules, [property]).get(property);
      }
      style.setProperty(property, value ?? initial);
    }
    return style;
  };
}
