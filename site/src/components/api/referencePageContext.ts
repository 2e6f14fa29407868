import { createContext } from 'react';

/**
 * Set by the API reference's page component (ReferencePage) around the layout it renders: reference pages are not docs,
 * so the navbar learns from this, not from the docs plugin, whether it shows a page of the reference or a not-found page.
 */
export const ReferencePageContext = createContext<{ found: boolean } | null>(null);
