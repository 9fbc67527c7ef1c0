export const company = {
  createTitle: 'Create your company',
  createIntro: 'A company holds your applications, users and settings. You become its owner.',
  nameLabel: 'Company name',
  namePlaceholder: 'For example: Example Ltd.',
  nameRequired: 'Please enter the company name',
  nameTooLong: 'The company name can be at most {{max}} characters',
  createSubmit: 'Create company',
  created: 'Company "{{name}}" created',
  adminTitle: 'Companies are created in the developer console',
  adminIntro:
    'The platform console works with existing companies. Create a company in the developer console; it then appears here too.',
  openDevConsole: 'Open the developer console',
  switcherLabel: 'Current company',
  createAnother: 'Create another company',
};
