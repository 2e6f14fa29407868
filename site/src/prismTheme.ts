import { themes, type PrismTheme } from 'prism-react-renderer';

// Prism's GitHub theme with every token colour darkened to at least 4.5:1 against the code background (#f6f8fa),
// so code samples pass WCAG AA contrast like the rest of the page.
const darker: Record<string, string> = {
  '#999988': '#6a6a5a',
  '#e3116c': '#b00c53',
  '#36acaa': '#167070',
  '#00a4db': '#0069a0',
  '#d73a49': '#b3232f',
};

export const accessibleGithub: PrismTheme = {
  ...themes.github,
  styles: themes.github.styles.map((s) => ({
    ...s,
    style: { ...s.style, ...(s.style.color && darker[s.style.color] ? { color: darker[s.style.color] } : {}) },
  })),
};
