// What the dashboard's layout tests look for on a page, run inside the browser (page.evaluate):
// anything past the screen's right edge, and anything cut off or out of its box. Self-contained:
// Playwright sends the function's text to the page.

/**
 * Every element or text of the page that the reader cannot see whole, described:
 * - `off screen`: an element, or content spilling out of it, past the screen's right edge (a wide
 *   table scrolls inside its own frame, `.table-wrap`, which does not);
 * - `cut off`: an element that hides what overflows it (overflow hidden or clip) holding more than
 *   it shows, across or down (a field's value, which scrolls in it as it is typed, aside);
 * - `spills`: a block, flex or grid box whose content is wider than the box itself;
 * - `out of its box`: an element, or a line of text, reaching past the box it is drawn in (the
 *   nearest ancestor with a border, a background or an overflow of its own: a card, a tile, a
 *   badge, a button, the header), unless that box scrolls.
 * What is not rendered (a closed <details>), hidden on purpose (`.visually-hidden`), has no size,
 * or is placed absolutely is left out.
 */
export function layoutProblems(): string[] {
  const problems: string[] = []
  const screen = document.documentElement.clientWidth + 0.5
  const say = (what: string, node: Node) => {
    const drawn =
      node instanceof Element ? node.outerHTML : `"${node.textContent}" in ${node.parentElement?.outerHTML ?? ''}`
    return `${what}: ${drawn.slice(0, 120)}`
  }
  const sized = (rect: DOMRect) => rect.width > 0 && rect.height > 0
  const scrolls = (style: CSSStyleDeclaration) =>
    ['auto', 'scroll'].includes(style.overflowX) || ['auto', 'scroll'].includes(style.overflowY)
  const drawsBox = (style: CSSStyleDeclaration) =>
    style.overflowX !== 'visible' ||
    style.overflowY !== 'visible' ||
    ['Top', 'Right', 'Bottom', 'Left'].some(
      (side) => parseFloat(style.getPropertyValue(`border-${side.toLowerCase()}-width`)) > 0,
    ) ||
    style.backgroundColor !== 'rgba(0, 0, 0, 0)'
  /**
   * The box `element` is drawn in: itself when `self` and it draws one, else its nearest ancestor that does (not the
   * page itself).
   */
  const frameOf = (element: Element, self: boolean): Element | null => {
    for (
      let at: Element | null = self ? element : element.parentElement;
      at && at !== document.body && at !== document.documentElement;
      at = at.parentElement
    )
      if (drawsBox(getComputedStyle(at))) return at
    return null
  }
  const outside = (inner: DOMRect, outer: DOMRect) =>
    inner.left < outer.left - 0.5 ||
    inner.right > outer.right + 0.5 ||
    inner.top < outer.top - 0.5 ||
    inner.bottom > outer.bottom + 0.5
  // Rendered (not in a closed <details>, not display: none nor visibility: hidden), and not hidden on purpose.
  const judged = (element: Element) =>
    element.checkVisibility({ visibilityProperty: true }) &&
    !element.closest('.visually-hidden') &&
    sized(element.getBoundingClientRect())

  for (const element of document.querySelectorAll('body *')) {
    if (!judged(element)) continue
    const style = getComputedStyle(element)
    const box = element.getBoundingClientRect()
    if (!element.parentElement?.closest('.table-wrap')) {
      const spillsPast = style.overflowX === 'visible' && box.left + element.scrollWidth > screen
      if (box.right > screen || spillsPast) problems.push(say('off screen', element))
    }
    const clips = (overflow: string) => overflow === 'hidden' || overflow === 'clip'
    // A field's value scrolls inside it as it is typed: not cut off.
    const field = ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName)
    if (
      !field &&
      ((clips(style.overflowX) && element.scrollWidth > element.clientWidth + 1) ||
        (clips(style.overflowY) && element.scrollHeight > element.clientHeight + 1))
    )
      problems.push(say('cut off', element))
    if (
      !field &&
      style.overflowX === 'visible' &&
      /^(block|flex|grid|flow-root|list-item)$/.test(style.display) &&
      element.scrollWidth > element.clientWidth + 1
    )
      problems.push(say('spills', element))
    if (style.position === 'absolute' || style.position === 'fixed') continue
    const frame = frameOf(element, false)
    if (frame && !scrolls(getComputedStyle(frame)) && outside(box, frame.getBoundingClientRect()))
      problems.push(say('out of its box', element))
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement
    if (
      !parent ||
      !node.textContent?.trim() ||
      !judged(parent) ||
      ['SCRIPT', 'STYLE', 'OPTION', 'SELECT'].includes(parent.tagName)
    )
      continue
    const range = document.createRange()
    range.selectNodeContents(node)
    const rect = range.getBoundingClientRect()
    const frame = frameOf(parent, true)
    if (sized(rect) && frame && !scrolls(getComputedStyle(frame)) && outside(rect, frame.getBoundingClientRect()))
      problems.push(say('out of its box', node))
  }
  return problems
}
