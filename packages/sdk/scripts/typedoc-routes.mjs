// TypeDoc plugin: flat routes for the site (/docs/access/sdk/...) and front matter on every page.
//   modules.md                 project index (list of modules)
//   modules/<Module>.md        one page per module (the SDK entry point is "sdk", the types module "Types")
//   namespaces/<Namespace>.md  e.g. namespaces/errors.md
//   classes|interfaces|enums/<Name>.md
import { ReflectionKind } from 'typedoc';
import { MarkdownPageEvent, MemberRouter } from 'typedoc-plugin-markdown';

const DIRS = new Map([
  [ReflectionKind.Class, 'classes'],
  [ReflectionKind.Interface, 'interfaces'],
  [ReflectionKind.Enum, 'enums'],
  [ReflectionKind.Namespace, 'namespaces'],
  [ReflectionKind.Module, 'modules'],
]);

/** Last segment of a module name: "@keyway/sdk" -> "sdk". */
const moduleSlug = (name) => name.split('/').pop().replace(/[^A-Za-z0-9_-]/g, '-');

class KeywayRouter extends MemberRouter {
  getIdealBaseName(reflection) {
    const dir = DIRS.get(reflection.kind);
    if (!dir) return super.getIdealBaseName(reflection);
    return `${dir}/${reflection.kind === ReflectionKind.Module ? moduleSlug(reflection.name) : reflection.name}`;
  }
}

const KIND_LABEL = new Map([
  [ReflectionKind.Class, 'Class'],
  [ReflectionKind.Interface, 'Interface'],
  [ReflectionKind.Enum, 'Enumeration'],
  [ReflectionKind.Namespace, 'Namespace'],
  [ReflectionKind.Module, 'Module'],
]);

/**
 * The sidebar label of a long class or interface name, with zero-width spaces between its words, so that a narrow
 * sidebar wraps "InvalidKeywayConfiguration­Error" between words instead of mid-word ("…Configuration Er ror").
 */
const wrappable = (name) => name.replace(/([a-z0-9])([A-Z])/g, '$1\u200b$2');

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.defineRouter('keyway', KeywayRouter);
  app.renderer.on(MarkdownPageEvent.BEGIN, (page) => {
    const model = page.model;
    const isProject = model.kind === ReflectionKind.Project;
    const name = isProject ? 'Modules' : model.name;
    const kind = KIND_LABEL.get(model.kind);
    page.frontmatter = {
      title: isProject ? '@keyway/sdk reference' : kind ? `${kind}: ${name}` : name,
      sidebar_label: isProject ? 'Overview' : wrappable(name),
      ...(isProject ? { sidebar_position: 1 } : {}),
      ...page.frontmatter,
    };
  });
}
